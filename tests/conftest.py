"""Shared fixtures. End-to-end fixtures live in tests/e2e/conftest.py."""
