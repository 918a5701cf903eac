// TypeDoc plugin (typedoc.json `plugin`): a codec's module is named after the path users import it
// from, `kafka-wire/messages/<Name>`, not after its source file `generated/<Name>.ts`. The
// hand-written entry points carry `@module <import path>` in their first docstring; generated files
// are never hand-edited, and the import path of each is tsup.config.ts's `messages/<Name>` entry.
import { Converter, ReflectionKind } from "typedoc";

/** @param {import("typedoc").Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const module of context.project.getReflectionsByKind(ReflectionKind.Module)) {
      const codec = /^generated\/([^/]+)$/.exec(module.name);
      if (codec !== null) module.name = `kafka-wire/messages/${codec[1]}`;
    }
  });
}
