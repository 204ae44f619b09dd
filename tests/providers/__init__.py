"""Tests of the provider codecs, one package per format."""
