/** The plugin kit: routes: handlers, JSON answers, bodies, cross-site rules, URLs and outbound requests. */
export { isPrivateAddress } from '../internal/address-guard';
export { asyncHandler } from '../internal/async-handler';
export { type AddressedRequest, clientIp } from '../internal/client-ip';
export { type CrossSiteOptions, CrossSitePolicy } from '../internal/cross-origin';
export { escapeHtml } from '../internal/html';
export { sendJson, sendRedirect, wantsHtml } from '../internal/http';
export { type RedirectPolicy, redirectTarget } from '../internal/redirect-policy';
export { requestSlot, type RequestSlot } from '../internal/request-slot';
export { type ErrorAnswer, finishRouter, objectBody, onlyMethods, routerShell, type RouterShellOptions, tracedRequest } from '../internal/router-shell';
export { safeFetch } from '../internal/safe-fetch';
export { patternProblem, urlPattern, type UrlPattern } from '../internal/url-pattern';
