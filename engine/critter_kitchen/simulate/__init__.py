"""The balance lab: simulated games scored by the engine, and what each card does to them."""
