"""what users read and what edits their files on request: reporters per output format, fingerprints,
the baseline, ``--add-noqa``, the progress line, the rule table and the GB-id coverage map.
"""
