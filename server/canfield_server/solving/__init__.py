"""The solver as a service: worker processes for winnable deals, par and hints."""
