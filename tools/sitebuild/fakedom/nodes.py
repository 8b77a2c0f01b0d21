"""Nodes: text, comments and elements with their attributes, children, markup and events; markup parsed into them."""

from __future__ import annotations

import weakref
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from html import escape
from html.parser import HTMLParser

from .parts import Canvas2D, ClassList, Collection, Dataset, Rect, Style
from .selectors import Compound, compile_selector, matches

HTML_NS = "http://www.w3.org/1999/xhtml"
VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())
# Properties that read and write an attribute of the same meaning (DOM "reflection").
REFLECTED = {
    "id": "id",
    "href": "href",
    "title": "title",
    "type": "type",
    "name": "name",
    "role": "role",
    "target": "target",
    "rel": "rel",
    "src": "src",
    "alt": "alt",
    "min": "min",
    "max": "max",
    "step": "step",
    "placeholder": "placeholder",
    "htmlFor": "for",
    "tabIndex": "tabindex",
    "width": "width",
    "height": "height",
}
BOOLEAN = {"hidden": "hidden", "disabled": "disabled", "checked": "checked", "open": "open", "readOnly": "readonly"}


# Every element by each attribute it has (what `Element.candidates` starts from); weak, so the
# nodes a view drops are freed.
HAVING: defaultdict[str, weakref.WeakSet[Element]] = defaultdict(weakref.WeakSet)


def position(node: Node) -> tuple[int, ...]:
    """Where a node is in document order: its child indices from the top."""
    path = []
    while node.parentNode is not None:
        path.append(node.parentNode.childNodes.index(node))
        node = node.parentNode
    return tuple(reversed(path))


class EventTarget:
    """Listeners by event type; `dispatchEvent` calls them on the target, then, for an event that
    bubbles, on each ancestor until one stops it. The build adds listeners and never dispatches."""

    def addEventListener(self, kind: str, listener: Callable, options: object = None) -> None:
        self.__dict__.setdefault("_listeners", defaultdict(list))[kind].append(listener)

    def removeEventListener(self, kind: str, listener: Callable, options: object = None) -> None:
        held = self.__dict__.get("_listeners", {}).get(kind, [])
        if listener in held:
            held.remove(listener)

    def dispatchEvent(self, event: object) -> bool:
        """`event` is any object with `type`; `target`, `currentTarget` are set here."""
        object.__setattr__(event, "target", self)
        node: object = self
        while node is not None and not getattr(event, "propagation_stopped", False):
            object.__setattr__(event, "currentTarget", node)
            for listener in list(node.__dict__.get("_listeners", {}).get(event.type, [])):  # type: ignore[attr-defined]
                listener(event)
            node = getattr(node, "parentNode", None) if getattr(event, "bubbles", True) else None
        return not getattr(event, "defaultPrevented", False)


class Node(EventTarget):
    def __init__(self) -> None:
        self.parentNode: Element | None = None

    @property
    def parentElement(self) -> Element | None:
        return self.parentNode

    @property
    def nodeType(self) -> int:
        raise NotImplementedError

    @property
    def textContent(self) -> str:
        raise NotImplementedError

    def html(self) -> str:
        raise NotImplementedError

    def remove(self) -> None:
        if self.parentNode is not None:
            self.parentNode.removeChild(self)

    def replaceWith(self, node: Node) -> None:
        parent = self.parentNode
        if parent is not None:
            parent.insertBefore(node, self)
            parent.removeChild(self)


class CharacterData(Node):
    """A node that is its text: Text or Comment."""

    def __init__(self, data: str) -> None:
        super().__init__()
        self.data = data


class Text(CharacterData):
    nodeType = 3  # noqa: N815 - the DOM's own names, which the views call

    @property
    def textContent(self) -> str:
        return self.data

    @textContent.setter
    def textContent(self, value: object) -> None:
        self.data = str(value)

    def html(self) -> str:
        raw = self.parentNode is not None and self.parentNode.localName in ("script", "style")
        return self.data if raw else escape(self.data, quote=False)


class Comment(CharacterData):
    nodeType = 8  # noqa: N815 - the DOM's own names, which the views call

    @property
    def textContent(self) -> str:
        return ""

    def html(self) -> str:
        return f"<!--{self.data}-->"


class Element(Node):
    nodeType = 1  # noqa: N815 - the DOM's own names, which the views call

    def __init__(self, tag: str, namespace: str = HTML_NS) -> None:
        super().__init__()
        self.localName = tag.lower() if namespace == HTML_NS else tag
        self.namespaceURI = namespace
        self.childNodes: list[Node] = []
        self.attributes: dict[str, str] = {}
        self.style = Style()
        self.classList = ClassList(self)
        self.dataset = Dataset(self)
        self._value: str | None = None

    # --- reflected attributes and properties ------------------------------------------------------
    @property
    def content(self) -> Element:
        """A <template>'s content: the browser parses it into a fragment outside the page; here its children
        stand for it (the views take them out before anything reads the page)."""
        if self.localName != "template":
            raise AttributeError(f"the build's DOM has no {self.localName}.content")
        return self

    def __getattr__(self, name: str):
        if name in REFLECTED:
            return self.attributes.get(REFLECTED[name], "")
        if name in BOOLEAN:
            return BOOLEAN[name] in self.attributes
        raise AttributeError(f"the build's DOM (tools/sitebuild/fakedom.py) has no {self.localName}.{name}")

    def __setattr__(self, name: str, value: object) -> None:
        if name in REFLECTED:
            self.setAttribute(REFLECTED[name], value)
        elif name in BOOLEAN:
            if value:
                self.setAttribute(BOOLEAN[name], "")
            else:
                self.removeAttribute(BOOLEAN[name])
        else:
            object.__setattr__(self, name, value)

    @property
    def tagName(self) -> str:
        return self.localName.upper() if self.namespaceURI == HTML_NS else self.localName

    @property
    def className(self) -> str:
        return self.attributes.get("class", "")

    @className.setter
    def className(self, value: str) -> None:
        self.setAttribute("class", value)

    @property
    def value(self) -> str:
        if self.localName == "select":
            options = self.querySelectorAll("option")
            chosen = [o for o in options if o.hasAttribute("selected")] or list(options)[:1]
            return chosen[0].getAttribute("value") or "" if chosen else ""
        if self.localName == "textarea":
            return self.textContent
        return self.attributes.get("value", "")

    @value.setter
    def value(self, value: object) -> None:
        text = str(value)
        if self.localName == "select":
            for option in self.querySelectorAll("option"):
                option.toggleAttribute("selected", option.getAttribute("value") == text)
        elif self.localName == "textarea":
            self.textContent = text
        else:
            self.setAttribute("value", text)

    def setAttribute(self, name: str, value: object) -> None:
        name = name.lower() if self.namespaceURI == HTML_NS else name
        self.attributes[name] = str(value)
        HAVING[name].add(self)

    def getAttribute(self, name: str) -> str | None:
        return self.attributes.get(name)

    def hasAttribute(self, name: str) -> bool:
        return name in self.attributes

    def removeAttribute(self, name: str) -> None:
        self.attributes.pop(name, None)
        HAVING[name].discard(self)

    def toggleAttribute(self, name: str, force: bool | None = None) -> bool:
        wanted = name not in self.attributes if force is None else force
        if wanted:
            self.setAttribute(name, self.attributes.get(name, ""))
        else:
            self.removeAttribute(name)
        return wanted

    # --- the tree ---------------------------------------------------------------------------------
    @property
    def children(self) -> Collection[Element]:
        return Collection(lambda: [n for n in self.childNodes if isinstance(n, Element)])

    @property
    def firstChild(self) -> Node | None:
        return self.childNodes[0] if self.childNodes else None

    @property
    def lastChild(self) -> Node | None:
        return self.childNodes[-1] if self.childNodes else None

    @property
    def firstElementChild(self) -> Element | None:
        return self.children.item(0)

    def appendChild(self, node: Node) -> Node:
        return self.insertBefore(node, None)

    def append(self, *nodes: Node | str) -> None:
        for node in nodes:
            self.appendChild(Text(node) if isinstance(node, str) else node)

    def insertBefore(self, node: Node, reference: Node | None) -> Node:
        node.remove()
        index = len(self.childNodes) if reference is None else self.childNodes.index(reference)
        self.childNodes.insert(index, node)
        node.parentNode = self
        return node

    def removeChild(self, node: Node) -> Node:
        self.childNodes.remove(node)
        node.parentNode = None
        return node

    def replaceChildren(self, *nodes: Node) -> None:
        for child in list(self.childNodes):
            self.removeChild(child)
        self.append(*nodes)

    def insertAdjacentElement(self, where: str, node: Element) -> Element:
        parent = self.parentNode
        if where == "beforebegin" and parent is not None:
            parent.insertBefore(node, self)
        elif where == "afterend" and parent is not None:
            following = parent.childNodes[parent.childNodes.index(self) + 1 :]
            parent.insertBefore(node, following[0] if following else None)
        elif where == "afterbegin":
            self.insertBefore(node, self.firstChild)
        else:
            self.appendChild(node)
        return node

    @property
    def textContent(self) -> str:
        return "".join(child.textContent for child in self.childNodes)

    @textContent.setter
    def textContent(self, value: object) -> None:
        text = "" if value is None else str(value)
        self.replaceChildren(*([Text(text)] if text else []))

    @property
    def innerHTML(self) -> str:
        return "".join(child.html() for child in self.childNodes)

    @innerHTML.setter
    def innerHTML(self, markup: str) -> None:
        self.replaceChildren()
        parse_into(self, markup)

    @property
    def outerHTML(self) -> str:
        return self.html()

    def descendants(self) -> Iterator[Element]:
        """Every element below, in document order."""
        stack = [child for child in reversed(self.childNodes) if isinstance(child, Element)]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(child for child in reversed(node.childNodes) if isinstance(child, Element))

    def candidates(self, selector: str) -> Iterable[Element]:
        """The elements below that could match, in document order. The views look up their number
        slots by attribute hundreds of times in trees of thousands of cells, so a selector that
        tests an attribute other than class starts from the elements having it."""
        chains = compile_selector(selector)
        head = chains[0][0] if len(chains) == 1 else None
        name = (
            next((test[0] for test in head.tests if test[0] != "class"), None) if isinstance(head, Compound) else None
        )
        if name is None:
            return self.descendants()
        return sorted((node for node in HAVING[name] if self.contains(node) and node is not self), key=position)

    def querySelectorAll(self, selector: str) -> Collection[Element]:
        found = [node for node in self.candidates(selector) if matches(node, selector)]
        return Collection(lambda: found)

    def querySelector(self, selector: str) -> Element | None:
        return next((node for node in self.candidates(selector) if matches(node, selector)), None)

    def matches(self, selector: str) -> bool:
        return matches(self, selector)

    def closest(self, selector: str) -> Element | None:
        node: Element | None = self
        while node is not None and not matches(node, selector):
            node = node.parentNode
        return node

    def contains(self, other: Node | None) -> bool:
        while other is not None and other is not self:
            other = other.parentNode
        return other is self

    def focus(self) -> None:
        """The document this element is in has it as its activeElement (no focus ring before layout)."""
        root: Element = self
        while root.parentNode is not None:
            root = root.parentNode
        if getattr(root, "documentElement", None) is root:  # the tree's top is a document (window.py)
            root.activeElement = self

    # --- before layout ----------------------------------------------------------------------------
    def getBoundingClientRect(self) -> Rect:
        return Rect()

    # The DOM's own names (N815), which the views read.
    offsetTop = offsetLeft = offsetWidth = offsetHeight = 0  # noqa: N815
    clientTop = clientLeft = clientWidth = clientHeight = 0  # noqa: N815
    scrollTop = scrollLeft = scrollWidth = scrollHeight = 0  # noqa: N815

    def getContext(self, kind: str) -> Canvas2D:
        return Canvas2D()

    # --- markup -----------------------------------------------------------------------------------
    def html(self) -> str:
        attributes = dict(self.attributes)
        if self.style.properties:
            attributes["data-prerender-style"] = self.style.text()
        start = self.localName + "".join(
            f' {name}="{escape(value)}"' if value else f" {name}" for name, value in attributes.items()
        )
        if self.namespaceURI == HTML_NS and self.localName in VOID:
            return f"<{start}>"
        return f"<{start}>{self.innerHTML}</{self.localName}>"


class _TreeBuilder(HTMLParser):
    """Markup into nodes under `root`; an end tag closes up to its element, as the pages are well formed."""

    def __init__(self, root: Element) -> None:
        super().__init__(convert_charrefs=True)
        self.open = [root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        parent = self.open[-1]
        if tag == "tr" and parent.localName == "table":
            # The browser's parser puts a row written straight in a table into an implied <tbody>.
            body = Element("tbody")
            parent.appendChild(body)
            self.open.append(body)
            parent = body
        inside_svg = parent.namespaceURI != HTML_NS or tag == "svg"
        element = Element(tag, "http://www.w3.org/2000/svg" if inside_svg else HTML_NS)
        for name, value in attrs:
            element.setAttribute(name, value or "")
        parent.appendChild(element)
        if element.namespaceURI != HTML_NS or tag not in VOID:
            self.open.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if self.open[-1].localName == tag and (self.open[-1].namespaceURI != HTML_NS or tag not in VOID):
            self.open.pop()

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.open) - 1, 0, -1):
            if self.open[depth].localName == tag:
                del self.open[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.open[-1].appendChild(Text(data))

    def handle_comment(self, data: str) -> None:
        self.open[-1].appendChild(Comment(data))


def parse_into(root: Element, markup: str) -> None:
    builder = _TreeBuilder(root)
    builder.feed(markup)
    builder.close()
