"""ariadne_audit: causal faithfulness audits of agent reasoning traces (Project Ariadne).

Pure core: ``text`` (tokens, lexicon), ``interventions`` (the four rewrites), ``scoring``
(similarity metrics), ``agents`` (builtin reference agents, client and http reruns),
``generator`` (seeded audit items), ``audit`` (single and batch audits, aggregates).
``ability`` is the thin wrapper that speaks to the orchestrator.
"""
