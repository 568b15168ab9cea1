"""Tournaments' rules: plain Python with no web framework, as the games' rules engines are.

``swiss`` pairs the rounds of an nmbrs! swiss tournament and ranks its entrants
(docs/rules.md §7.4).
"""
