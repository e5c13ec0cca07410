/** The simulator's margin, instant, trading-credit, withdrawal and account desks, in one place. */
export { createSimDesks, specsOf } from './margin/wiring.js';
export { MarginDesk } from './margin/desk.js';
export { InstantDesk } from './instant.js';
export { PropDesk } from './prop.js';
export { WithdrawalDesk } from './withdrawal.js';
export { AccountExtras } from './account-extras.js';
