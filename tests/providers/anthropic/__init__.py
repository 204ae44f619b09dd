"""Tests of the anthropic codec."""
