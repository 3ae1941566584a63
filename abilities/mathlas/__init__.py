"""mathlas: the no-LLM math toolbox for AIs (ability, MCP server and CLI over one set of tools)."""
