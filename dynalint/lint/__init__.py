"""the lint stage's machinery. The ``Rule`` base class, the engine's one walk, overlaps, suppression,
containment of crashes and limits (failsafe), worker processes, and the rule pages (the catalogue).
"""
