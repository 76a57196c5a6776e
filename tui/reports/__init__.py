"""What is read out of a save: luck, the after-action report, the log review's data."""
