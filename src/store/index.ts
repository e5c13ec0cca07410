export { Journal } from './journal.js';
export { MIGRATIONS, JournalVersionError } from './migrations.js';
export { computePnl, journalSplit } from './pnl.js';
export { recordInstruments } from './instruments.js';
export { registerJournalCommand, parseSince } from '../cli/journal.js';
export type * from './types.js';
export { bindJournal, readBinding, keyFingerprint, JournalBindingError } from './binding.js';
