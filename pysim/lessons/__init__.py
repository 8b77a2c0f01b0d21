"""What the pages say: explanations, the walkthrough, the ladder, checkpoints, formulas, all computed."""
