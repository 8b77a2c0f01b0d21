"""One module (or package) per route; each draws what pysim computed."""
