"""Browser-side views: turn pysim traces into DOM and SVG changes."""
