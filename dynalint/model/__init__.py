"""frozen value types every stage shares (findings, diagnostics, Dynamo settings,
the rule index and its selector arithmetic, dynalint's version). Imports nothing of dynalint above it.
"""
