"""What the analyser makes of ``open(path)`` where a script reads a file of its project (a YAML or
JSON config of its model: ``cfg = yaml.safe_load(open("configs/model.yaml"))``). The file is read
once, as text, by the analyser (Interpreter.open_file); this object hands that text to the code:
``read()``, ``readlines()``, iterating its lines, and ``with``. Nothing is ever written.
"""


class TextFile:
    def __init__(self, text, name):
        self._text = text
        self._lines = text.splitlines(True)
        self._at = 0  # the lines read so far
        self.name = name
        self.mode = "r"
        self.closed = False

    def read(self, size=-1):
        rest = "".join(self._lines[self._at:])
        self._at = len(self._lines)
        return rest

    def readlines(self):
        rest = self._lines[self._at:]
        self._at = len(self._lines)
        return rest

    def readline(self):
        if self._at >= len(self._lines):
            return ""
        self._at += 1
        return self._lines[self._at - 1]

    def __iter__(self):
        return iter(self.readlines())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.closed = True
        return False

    def close(self):
        self.closed = True
