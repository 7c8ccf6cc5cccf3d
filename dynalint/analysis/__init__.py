"""what the code means. Summaries (one ``ast`` pass per file), the linked program and its compiled
regions, and the value analysis that says whether an expression is a tensor, its data or its metadata.
"""
