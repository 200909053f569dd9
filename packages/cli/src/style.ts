import { styleText } from 'node:util';
import type { Io } from './io.js';

type Color = 'red' | 'yellow' | 'green' | 'dim' | 'bold';

/** Colors text when the output is a terminal without NO_COLOR; plain otherwise. */
export function paint(io: Io, color: Color, text: string): string {
  return io.color ? styleText(color, text) : text;
}
