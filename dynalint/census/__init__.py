"""the pytest plugin that records a project's break census from its own test run.
"""
