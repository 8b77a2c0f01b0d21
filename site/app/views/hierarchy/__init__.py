"""#/hierarchy: the memory-hierarchy walkthrough (seed 002), steps 0-7: its numbers (numbers.py), its pictures
(pictures.py) and the view that fills the static prose of site/partials/hierarchy.html (page.py)."""
