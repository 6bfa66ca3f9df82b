"""Environments: who the users are, what they like, and how rewards are drawn."""
