"""The local stack: real emulators plus the three functions, on one machine."""
