"""memtap's MCP server: memory tools for agents (`memtap mcp`, stdio)."""
