"""Tests of the openai_responses codec."""
