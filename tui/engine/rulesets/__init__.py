"""One resolver per ruleset family."""
