// In-process wake-up: services call notify() after committing events, so the inline worker
// delivers at once instead of waiting for its next poll.
import { EventEmitter } from 'node:events';

export class OutboxSignal extends EventEmitter {
  notify(): void {
    this.emit('committed');
  }
}
