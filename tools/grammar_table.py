"""Rebuild rulespec/grammar_table.json after an edit of rulespec/grammar.lark (tests fail until you do)."""

from importlib import resources

from rulespec.grammar_table import TABLE, write_table

if __name__ == "__main__":
    out = str(resources.files("rulespec").joinpath(TABLE))
    write_table(out)
    print(f"wrote {out}")
