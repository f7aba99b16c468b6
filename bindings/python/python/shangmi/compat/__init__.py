"""Drop-in layers with the APIs and defaults of other SM libraries."""
