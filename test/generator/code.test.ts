/**
 * The Code builder's version-pruned branches, alone and on two builders at once (how the size
 * and write passes are emitted from one walk). Expected texts are written out by hand.
 */

import { describe, expect, it } from "vitest";
import { Code } from "../../generator/emit/code.js";
import { Versions } from "../../generator/schema/versions.js";

const v = (lowest: number, highest: number = lowest): Versions => Versions.of(lowest, highest);

describe("Code.ifVersion", () => {
  it("no if when the range covers the context, nothing (or only the else) when it misses it", () => {
    const code = new Code();
    code.ifVersion(v(0, 9), v(2, 5), () => code.line("always();"));
    code.ifVersion(v(7, 9), v(2, 5), () => code.line("never();"));
    code.ifVersion(
      v(7, 9),
      v(2, 5),
      () => code.line("never();"),
      () => code.line("otherwise();"),
    );
    expect(code.toString()).toBe("always();\notherwise();");
  });

  it("narrows each branch's context", () => {
    const code = new Code();
    const seen: string[] = [];
    code.ifVersion(
      v(3, 32767),
      v(0, 5),
      (c) => {
        seen.push(`then ${c}`);
        code.line("a();");
      },
      (c) => {
        seen.push(`else ${c}`);
        code.line("b();");
      },
    );
    expect(code.toString()).toBe("if (version >= 3) {\n  a();\n} else {\n  b();\n}");
    expect(seen).toEqual(["then 3-5", "else 0-2"]);
  });
});

describe("Code.ifVersionAll", () => {
  it("branches two builders alike and runs each branch once for both", () => {
    const size = new Code();
    const write = new Code();
    let calls = 0;
    Code.ifVersionAll(
      [size, write],
      v(0, 2),
      v(0, 5),
      () => {
        calls++;
        size.line("size += 4;");
        write.line("w.int32(x);");
      },
      () => {
        calls++;
        size.line("size += 2;");
        // Nothing for the write pass here: its else branch is dropped.
      },
    );
    expect(calls).toBe(2);
    expect(size.toString()).toBe("if (version <= 2) {\n  size += 4;\n} else {\n  size += 2;\n}");
    expect(write.toString()).toBe("if (version <= 2) {\n  w.int32(x);\n}");
  });

  it("nests inside blocks at each builder's own depth", () => {
    const size = new Code();
    const write = new Code();
    size.block("{", () =>
      Code.ifVersionAll([size, write], v(1, 32767), v(0, 3), () => {
        size.line("s();");
        write.line("w();");
      }),
    );
    expect(size.toString()).toBe("{ {\n  if (version >= 1) {\n    s();\n  }\n}");
    expect(write.toString()).toBe("if (version >= 1) {\n  w();\n}");
  });
});
