"""Tests of the mistral codec."""
