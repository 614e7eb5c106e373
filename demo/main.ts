// Demo page entry (issue 5 builds the full page).
import { createSplitEngine } from '../src/index.js';

const engine = await createSplitEngine();
document.querySelector('#app')!.textContent = `Cleave on ${engine.backend}`;
