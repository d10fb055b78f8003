"""GAA's built-in plugins: registered through the same hooks as any third-party plugin."""
