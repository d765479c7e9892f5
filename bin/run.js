#!/usr/bin/env node
// Kept for configurations that name bin/run.js; the binary is bin/run.cjs, which starts faster.
import './run.cjs';
