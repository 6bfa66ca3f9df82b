"""Recommendation policies π(a|x): users x items (or users x contexts x items) probabilities."""
