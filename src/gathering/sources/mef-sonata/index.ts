/*
 * The `mef-sonata` source: the gateway as a buyer of MEF LSO Sonata (POQ 7.0.1, Quote 8.0.1), mapped as
 * docs/mef-sonata-mapping.md says. What the wiring needs: the adapter, its settings, the notification
 * inbox and callback handler, the hub registration stores, how settings are stored, and the error codes.
 */

export { type SonataErrorCode, sonataErrorCodes } from './errors.js';
export type { SonataGathering } from './gather.js';
export {
  memoryHubRegistrations,
  type SonataHubListeners,
  type SonataHubRegistrations,
  sonataHubQueries,
} from './hub.js';
export { type SonataNotification, SonataNotificationInbox, type SonataResourceKey } from './inbox.js';
export {
  handleSonataNotification,
  type SonataNotificationRequest,
  type SonataNotificationResponse,
  sonataNotificationPaths,
} from './notification-handler.js';
export type { SonataDeclinedItem, SonataDeclineReason } from './offers.js';
export { declinedSummary, emptyGatheringError, partlyDeclinedNote } from './outcome.js';
export {
  redactedSonataSettings,
  type SonataInteraction,
  type SonataProductOfferingSettings,
  type SonataSourceSettings,
  type SonataSourceSettingsInput,
  sonataSourceSettingsSchema,
} from './settings.js';
export { createMefSonataSource, type MefSonataSource, type MefSonataSourceOptions } from './source.js';
export {
  shownSonataSettings,
  sonataSourceColumns,
  storedHubRegistrations,
  storedSonataSettings,
} from './stored.js';
