"""Infrastructure of the page: the shell and routes, the DOM helpers, slots, the score book."""
