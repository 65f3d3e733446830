def greet(name):
    """Return a greeting."""
    return "Hello, " + name


def main():
    for who in ["world", "agent"]:
        print(greet(who))


if __name__ == "__main__":
    main()
