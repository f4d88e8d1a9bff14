// The characters a terminal acts on instead of showing: the C0 controls, DEL and the C1 controls
// (Unicode category Cc: ESC starts the sequences that recolour, retitle or rewrite a terminal), and
// the bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) that make text
// read in another order than it is stored. Text from outside — a token's subject, what a server
// answers — must not carry them to a terminal as they are.

const CLASS = '[\\p{Cc}\\u202a-\\u202e\\u2066-\\u2069]';

/** Matches one such character. */
export const CONTROL_CHARACTER = new RegExp(CLASS, 'u');

/** Matches each such character, for replacing them all. */
export const CONTROL_CHARACTERS = new RegExp(CLASS, 'gu');
