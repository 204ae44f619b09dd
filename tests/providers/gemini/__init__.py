"""Tests of the gemini codec."""
