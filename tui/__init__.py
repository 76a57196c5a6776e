"""crtdesk: a combat desk for hex-and-counter wargames."""

__version__ = "0.1.0"
