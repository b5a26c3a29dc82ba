import FiberRuntime
import Foundation

// The HTTP caching rules of RFC 9111 as pure values, shared by every cache of
// Fiber (FiberSharing's `SharedCacheStore`, and the core `CacheInterceptor`
// when it adopts them). Nothing here reads a clock or does I/O: times are
// passed in, so the rules are tested without sockets or sleeps.
//
//   response ──► HTTPCacheRules.canStore ──► HTTPCacheRules.freshness ──► CacheFreshness
//                                                         (stored with the entry)
//   later use ──► CacheFreshness.state(at: now) ──► fresh │ stale (serve, revalidate) │ expired (revalidate first)

/// The directives of a `Cache-Control` field (RFC 9111 §5.2), parsed leniently:
/// unknown directives are ignored, a malformed number is as if absent.
public struct CacheControl: Sendable, Equatable {
    /// `max-age=N`: seconds the response stays fresh (a request: the oldest response it accepts).
    public var maxAge: Int?
    /// `s-maxage=N`: `max-age` for shared caches.
    public var sharedMaxAge: Int?
    /// `no-store`: never store the request or the response.
    public var noStore = false
    /// `no-cache`: a stored response must be revalidated before every use.
    public var noCache = false
    /// `must-revalidate`: once stale, the response is never used without revalidation.
    public var mustRevalidate = false
    /// `private`: for one user; a shared cache must not store it.
    public var isPrivate = false
    /// `public`: any cache may store it, even for an authenticated request.
    public var isPublic = false
    /// `stale-while-revalidate=N` (RFC 5861): seconds a stale response may be served while it is revalidated.
    public var staleWhileRevalidate: Int?

    /// No directives.
    public init() {}

    /// The directives of every `Cache-Control` field of `headers`.
    public init(headers: HTTPHeaders) {
        self.init(values: headers.values(name: "Cache-Control"))
    }

    /// The directives of the `Cache-Control` field values `values`, in order.
    init(values: [String]) {
        // Most responses have none, many one: neither needs joining.
        switch values.count {
        case 0: self.init()
        case 1: self.init(values[0])
        default: self.init(values.joined(separator: ","))
        }
    }

    /// The directives of one `Cache-Control` value such as `max-age=60, must-revalidate`.
    public init(_ value: String) {
        // Every value servers send is ASCII, read over its bytes; any other goes through
        // `reading(_:)`, whose trimming is Foundation's: both agree on every input (tested).
        self = CacheControl(ascii: value) ?? Self.reading(value)
    }

    /// The directives of `value`, sliced as a `Substring`: for text that is not ASCII, and
    /// the reference the byte reading is tested against. Not used for ASCII text because each
    /// search for a comma or an equals sign walks grapheme clusters.
    static func reading(_ value: String) -> CacheControl {
        var control = CacheControl()
        var rest = Substring(value)
        while !rest.isEmpty {
            guard let comma = rest.firstIndex(of: ",") else {
                control.apply(rest)
                break
            }
            control.apply(rest[..<comma])
            rest = rest[rest.index(after: comma)...]
        }
        return control
    }

    /// Sets what one directive (`max-age=60`, `no-store`) says; unknown ones change nothing.
    private mutating func apply(_ directive: Substring) {
        let equals = directive.firstIndex(of: "=")
        let name = FieldText.trimmingWhitespace(equals.map { directive[..<$0] } ?? directive)
        let seconds = equals
            .flatMap { Int(FieldText.trimmingQuotes(FieldText.trimmingWhitespace(directive[directive.index(after: $0)...]))) }
        set(seconds: seconds) { name.equalsIgnoringASCIICase($0) }
    }

    /// Sets what the directive `named` says, with its value read as `seconds` (negative ones as zero).
    /// Directive names are tokens, compared in any case (RFC 9111 §5.2).
    mutating func set(seconds: Int?, named: (String) -> Bool) {
        let seconds = seconds.map { max(0, $0) }
        if named("max-age") { maxAge = seconds }
        else if named("s-maxage") { sharedMaxAge = seconds }
        else if named("no-store") { noStore = true }
        else if named("no-cache") { noCache = true }
        else if named("must-revalidate") || named("proxy-revalidate") { mustRevalidate = true }
        else if named("private") { isPrivate = true }
        else if named("public") { isPublic = true }
        else if named("stale-while-revalidate") { staleWhileRevalidate = seconds }
    }
}

/// Where a stored response stands at a given time.
public enum CacheFreshnessState: Sendable, Equatable {
    /// Usable as is.
    case fresh
    /// Past its lifetime but inside the stale-while-revalidate window: serve it and revalidate in the background.
    case stale
    /// Not usable without revalidation (a conditional request, if it has validators).
    case expired
}

/// The freshness of one stored response: when it arrived, how old it was then,
/// how long it stays fresh and how long after that it may still be served while
/// it is revalidated. Stored with the entry (it is `Codable`).
public struct CacheFreshness: Sendable, Codable, Equatable {
    /// When the response was received (RFC 9111 `response_time`).
    public var responseTime: Date
    /// Its age on arrival, seconds (`corrected_initial_age`: `Age` plus the request's round trip).
    public var initialAge: TimeInterval
    /// Seconds it is fresh, counted in age (`freshness_lifetime`).
    public var lifetime: TimeInterval
    /// Seconds past `lifetime` during which it may be served while revalidating.
    public var staleWhileRevalidate: TimeInterval

    /// A freshness from its parts.
    public init(responseTime: Date, initialAge: TimeInterval = 0, lifetime: TimeInterval,
                staleWhileRevalidate: TimeInterval = 0) {
        self.responseTime = responseTime
        self.initialAge = max(0, initialAge)
        self.lifetime = max(0, lifetime)
        self.staleWhileRevalidate = max(0, staleWhileRevalidate)
    }

    /// The response's current age at `now`, seconds (RFC 9111 §4.2.3).
    public func age(at now: Date) -> TimeInterval {
        initialAge + max(0, now.timeIntervalSince(responseTime))
    }

    /// Fresh while the age is below the lifetime; stale inside the window after it; expired beyond.
    public func state(at now: Date) -> CacheFreshnessState {
        let age = age(at: now)
        if age < lifetime { return .fresh }
        if age < lifetime + staleWhileRevalidate { return .stale }
        return .expired
    }
}

/// RFC 9111's decisions for one cache: what may be stored, and for how long it
/// is fresh. `defaultLifetime` and `defaultStaleWhileRevalidate` apply when
/// the response says nothing (the client's policy, RFC 9111 §4.2.2's heuristic);
/// what the server says wins.
public struct HTTPCacheRules: Sendable, Equatable {
    /// Seconds a response without an explicit lifetime (`max-age`, `Expires`) stays fresh.
    public var defaultLifetime: TimeInterval
    /// Seconds of stale-while-revalidate when the response has no such directive.
    public var defaultStaleWhileRevalidate: TimeInterval
    /// A shared cache (serving several users) refuses `private` responses and
    /// responses to authenticated requests, and prefers `s-maxage`.
    public var isShared: Bool

    /// True for the statuses that may be stored without explicit freshness (RFC 9110 §15.1), partial content aside.
    static func isCacheableByDefault(_ statusCode: Int) -> Bool {
        switch statusCode {
        case 200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501: true
        default: false
        }
    }

    /// Rules with the client's defaults; a private cache unless `isShared`.
    public init(defaultLifetime: TimeInterval, defaultStaleWhileRevalidate: TimeInterval = 0, isShared: Bool = false) {
        self.defaultLifetime = defaultLifetime
        self.defaultStaleWhileRevalidate = defaultStaleWhileRevalidate
        self.isShared = isShared
    }

    /// Whether the response to a request may be stored (RFC 9111 §3): a GET or
    /// HEAD, a cacheable status, no `no-store` on either side, no `Vary: *`;
    /// for a shared cache, not `private`, and not for an `Authorization`
    /// request unless `public`, `s-maxage` or `must-revalidate` allow it.
    public func canStore(method: HTTPMethod, statusCode: Int, requestHeaders: HTTPHeaders,
                         responseHeaders: HTTPHeaders) -> Bool {
        guard method == .get || method == .head, Self.isCacheableByDefault(statusCode) else { return false }
        return canStore(requestHeaders: requestHeaders, response: CacheControl(headers: responseHeaders),
                        varyNames: Self.varyNames(responseHeaders))
    }

    /// What a cache keeps of a response it may store (`canStore`): the request
    /// headers it varies on and its `freshness`; nil when it may not be stored.
    /// The same answers as those two, with the response's directives read once.
    func storage(method: HTTPMethod, statusCode: Int, requestHeaders: HTTPHeaders, responseHeaders: HTTPHeaders,
                 requestTime: Date, responseTime: Date) -> (varyNames: [String], freshness: CacheFreshness)? {
        guard method == .get || method == .head, Self.isCacheableByDefault(statusCode) else { return nil }
        let fields = CacheFields(responseHeaders)
        let control = fields.cacheControl
        guard let names = fields.varyNames,
              canStore(requestHeaders: requestHeaders, response: control, varyNames: names) else { return nil }
        return (names, freshness(fields, control: control, requestTime: requestTime, responseTime: responseTime))
    }

    /// `canStore` past the method and status, with the response's directives and vary names already read.
    private func canStore(requestHeaders: HTTPHeaders, response: CacheControl, varyNames: [String]?) -> Bool {
        guard !response.noStore, !CacheControl(headers: requestHeaders).noStore else { return false }
        guard varyNames != nil else { return false }
        if isShared {
            if response.isPrivate { return false }
            if requestHeaders.contains(name: "Authorization"),
               !(response.isPublic || response.sharedMaxAge != nil || response.mustRevalidate) { return false }
        }
        return true
    }

    /// The freshness of a response requested at `requestTime` and received at
    /// `responseTime` (RFC 9111 §4.2): lifetime from `s-maxage` (shared
    /// caches), `max-age`, `Expires` − `Date`, else `defaultLifetime`; zero
    /// with `no-cache`. The stale window is the response's
    /// `stale-while-revalidate`, else the default, and none with
    /// `must-revalidate` or `no-cache`. The initial age counts `Age`, the
    /// round trip and the `Date` header.
    public func freshness(responseHeaders: HTTPHeaders, requestTime: Date, responseTime: Date) -> CacheFreshness {
        let fields = CacheFields(responseHeaders)
        return freshness(fields, control: fields.cacheControl, requestTime: requestTime,
                         responseTime: responseTime)
    }

    /// `freshness` from the response's fields and directives, already read.
    private func freshness(_ fields: CacheFields, control: CacheControl, requestTime: Date, responseTime: Date)
        -> CacheFreshness {
        let date = fields.date.flatMap(HTTPDate.parse)
        var lifetime = defaultLifetime
        if isShared, let shared = control.sharedMaxAge {
            lifetime = TimeInterval(shared)
        } else if let maxAge = control.maxAge {
            lifetime = TimeInterval(maxAge)
        } else if let expires = fields.expires {
            // An invalid Expires (such as "0") means already expired.
            let expiry = HTTPDate.parse(expires)
            lifetime = expiry.map { max(0, $0.timeIntervalSince(date ?? responseTime)) } ?? 0
        }
        var window = control.staleWhileRevalidate.map(TimeInterval.init) ?? defaultStaleWhileRevalidate
        if control.noCache {
            lifetime = 0
            window = 0
        }
        if control.mustRevalidate { window = 0 }
        let ageValue = fields.age.flatMap { Int(FieldText.trimmingWhitespace($0[...])) } ?? 0
        let delay = max(0, responseTime.timeIntervalSince(requestTime))
        let apparent = date.map { max(0, responseTime.timeIntervalSince($0)) } ?? 0
        let initialAge = max(apparent, TimeInterval(max(0, ageValue)) + delay)
        return CacheFreshness(responseTime: responseTime, initialAge: initialAge, lifetime: lifetime,
                              staleWhileRevalidate: window)
    }

    /// True when the request itself asks to bypass stored responses
    /// (`Cache-Control: no-cache` or `max-age=0`, or `Pragma: no-cache`).
    public func requestRequiresValidation(_ requestHeaders: HTTPHeaders) -> Bool {
        let control = CacheControl(headers: requestHeaders)
        return control.noCache || control.maxAge == 0 || requestHeaders.containsToken("no-cache", in: "Pragma")
    }

    /// The lowercased request header names a response varies on, sorted; nil for `Vary: *` (matches nothing).
    public static func varyNames(_ responseHeaders: HTTPHeaders) -> [String]? {
        varyNames(values: responseHeaders.values(name: "Vary"))
    }

    /// `varyNames` from the values of the response's `Vary` fields.
    static func varyNames(values: [String]) -> [String]? {
        if values.isEmpty { return [] }
        var names: [String] = []
        var any = false
        for value in values {
            // ASCII (every value servers send) is read over its bytes; anything else goes
            // through `readingVaryNames`, whose trimming and lower-casing are Foundation's.
            let read = FieldList.forEachElement(of: value) { name in
                if name.count == 1, name[0] == UInt8(ascii: "*") { any = true }
                if !name.isEmpty, !any { names.append(Self.lowercased(name)) }
                return !any
            }
            guard read != nil else { return readingVaryNames(values) }
            if any { return nil }
        }
        // Most responses vary on one name, which needs neither sorting nor a set.
        return names.count < 2 ? names : Set(names).sorted()
    }

    /// ASCII bytes as a string, letters in lower case (a name of up to 15 bytes allocates nothing).
    private static func lowercased(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { name in
            for (index, byte) in bytes.enumerated() {
                name[index] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            }
            return bytes.count
        }
    }

    /// `varyNames(values:)` over `Substring`s, with Foundation's trimming and Unicode lower-casing
    /// (for text that is not ASCII, and the reference the byte reading is tested against).
    static func readingVaryNames(_ values: [String]) -> [String]? {
        var names: Set<String> = []
        for value in values {
            for name in value.split(separator: ",") {
                let trimmed = FieldText.trimmingWhitespace(name).lowercased()
                if trimmed == "*" { return nil }
                if !trimmed.isEmpty { names.insert(trimmed) }
            }
        }
        return names.sorted()
    }

    /// The values of `names` in `requestHeaders` (all values joined by `, `;
    /// absent fields as nil), which a later request must repeat to be served
    /// this response (RFC 9111 §4.1).
    public static func varySnapshot(names: [String], requestHeaders: HTTPHeaders) -> [String: String?] {
        var snapshot: [String: String?] = [:]
        for name in names {
            let values = requestHeaders.values(name: name)
            snapshot[name] = values.isEmpty ? String?.none : values.joined(separator: ", ")
        }
        return snapshot
    }

    /// The stored headers updated by a `304 Not Modified` (RFC 9111 §3.2): its
    /// fields replace those of the same name; framing fields are kept.
    public static func merging(_ stored: HTTPHeaders, with notModified: HTTPHeaders) -> HTTPHeaders {
        let kept: Set<String> = ["content-length", "transfer-encoding", "content-encoding", "content-range"]
        var merged = stored
        let replaced = Set(notModified.map { $0.name.lowercased() }).subtracting(kept)
        for name in replaced { merged.remove(name: name) }
        for field in notModified where replaced.contains(field.name.lowercased()) {
            merged.append(name: field.name, value: field.value)
        }
        return merged
    }
}
