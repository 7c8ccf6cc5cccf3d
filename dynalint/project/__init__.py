"""the user's project as files: config and the config tree of a monorepo, discovery (.gitignore,
excludes), safe reading, notebooks, source lines, and which torch the findings are for.
"""
