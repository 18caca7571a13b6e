"""Running the server: settings, logs, metrics, child processes."""
