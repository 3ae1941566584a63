"""CDA: Constraint-Driven Abduction, the bounded, auditable hypothesis engine (spec cda-spec)."""
