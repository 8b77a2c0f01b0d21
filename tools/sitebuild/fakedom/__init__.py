"""A small DOM in CPython, so the build can run the views of site/app and keep what they draw.

The pre-render (tools/sitebuild/prerender.py) mounts each view on this DOM at build time: the markup
in dist/index.html is then made by the same code that builds the live page, with nothing to
keep in step by hand. It holds what the views use and no more: elements, text and comments, the
attributes the browser reflects as properties, live `children`, simple selectors, and markup
parsed from and written back to HTML. There is no layout and no time here: boxes measure zero,
timers never fire and listeners only when an event is dispatched, which the build never does (a
view's first state is built synchronously; what a timer would add, such as the background C check,
is Python's once it runs; tests/views/ dispatch events to step the views). Anything else raises
AttributeError, so a view that needs more fails the build instead of drawing less.
"""

from .nodes import Comment, Element, Node, Text, parse_into
from .window import Document, Window

__all__ = ["Comment", "Document", "Element", "Node", "Text", "Window", "parse_into"]
