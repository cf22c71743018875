"""sklearn_privacy."""
