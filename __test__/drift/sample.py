"""Fallback Python sample for the drift suite, used only when no python3 stdlib is found."""

import os
import re


class Config:
    """A tiny settings holder."""

    def __init__(self, path, defaults=None):
        self.path = path
        self.values = dict(defaults or {})
        self.loaded = False

    def load(self):
        if not os.path.exists(self.path):
            return self
        with open(self.path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                key, sep, value = line.partition("=")
                if not sep:
                    raise ValueError("line %d: expected 'key = value'" % number)
                self.values[key.strip()] = value.strip()
        self.loaded = True
        return self

    def get(self, key, default=None):
        value = self.values.get(key, default)
        if isinstance(value, str) and value.isdigit():
            return int(value)
        return value


def tokenize(text, pattern=r"\w+|[^\w\s]"):
    tokens = []
    for match in re.finditer(pattern, text):
        word = match.group(0)
        if word.isspace():
            continue
        tokens.append((match.start(), word))
    return tokens


def wrap(text, width=70):
    lines = []
    current = ""
    for word in text.split():
        if len(current) + len(word) + 1 > width:
            lines.append(current)
            current = word
        elif current:
            current = current + " " + word
        else:
            current = word
    if current:
        lines.append(current)
    return "\n".join(lines)


def summarize(values):
    total = 0
    count = 0
    for value in values:
        try:
            total += float(value)
            count += 1
        except (TypeError, ValueError):
            print("skipping %r" % (value,))
    if count == 0:
        return {"count": 0, "mean": None}
    return {"count": count, "mean": total / count}


def main(argv):
    config = Config(argv[1] if len(argv) > 1 else "settings.ini").load()
    width = config.get("width", 70)
    text = "The quick brown fox jumps over the lazy dog. " * 4
    print(wrap(text, width))
    print(summarize(["1", "2", "x", 3]))
    for position, token in tokenize("a = b + 'c'"):
        print(position, token)
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv))
