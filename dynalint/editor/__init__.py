"""the language server (the only pygls importer) and what it says about open documents.
"""
