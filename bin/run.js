#!/usr/bin/env node
import { execute, settings } from '@oclif/core';

// The installed binary runs the compiled dist/ only; never look for TypeScript sources, whatever
// NODE_ENV says (oclif would otherwise warn under NODE_ENV=test/development).
settings.enableAutoTranspile = false;

await execute({ dir: import.meta.url });
