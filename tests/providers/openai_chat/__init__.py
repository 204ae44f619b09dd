"""Tests of the openai_chat codec."""
