"""Reading the direction of an effect: what a claim asserts (exposure, outcome, increase /
decrease / no effect), what a finding passage reports with its figures, and the verdict that
follows from the two (docs/direction.md)."""
