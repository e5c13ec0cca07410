/** The simulator's margin, instant, trading-credit, withdrawal and account desks, in one place. */
export { createSimDesks } from './margin/wiring.js';
