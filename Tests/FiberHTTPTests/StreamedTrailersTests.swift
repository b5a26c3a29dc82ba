@testable import FiberRuntime
import Testing

/// The pure pieces of trailers: which fields a trailer keeps, and when a
/// streamed body's trailers may be read.
@Suite("Trailer rules")
struct StreamedTrailersTests {
    static let fields: HTTPHeaders = ["X-Checksum": "abc"]

    func notReady(_ gate: StreamedTrailers) -> Bool {
        do throws(HTTPClientError) {
            _ = try gate.trailers()
            return false
        } catch {
            return error.kind == .trailersNotReady
        }
    }

    @Test func theTrailersAreReadableOnlyOnceTheConsumerReadTheEnd() throws {
        var gate = StreamedTrailers()
        #expect(notReady(gate), "still receiving")
        gate.consumerReadEnd()
        #expect(notReady(gate), "an end the connection never recorded is no end")
        gate.bodyEnded(trailers: Self.fields)
        #expect(notReady(gate), "ended on the wire, not yet read")
        gate.consumerReadEnd()
        #expect(try gate.trailers() == Self.fields)
        gate.bodyFailed(HTTPClientError(.connectionClosed))
        #expect(try gate.trailers() == Self.fields, "a late failure changes nothing read")
    }

    @Test func noTrailersReadAsNil() throws {
        var gate = StreamedTrailers()
        gate.bodyEnded(trailers: nil)
        gate.consumerReadEnd()
        #expect(try gate.trailers() == nil)
    }

    @Test func aFailedBodyThrowsItsFailure() {
        var gate = StreamedTrailers()
        gate.bodyFailed(HTTPClientError(.headersTooLarge))
        gate.bodyEnded(trailers: Self.fields)
        gate.consumerReadEnd()
        do throws(HTTPClientError) {
            _ = try gate.trailers()
            Issue.record("a failed body has no trailers")
        } catch {
            #expect(error.kind == .headersTooLarge)
        }
    }

    @Test func forbiddenFieldsAreDroppedAndTheRestKeptInOrder() {
        var fields = HTTPHeaders()
        for (name, value) in [("x-b", "1"), ("Content-Length", "3"), ("TRANSFER-ENCODING", "chunked"), ("Host", "h"),
                              ("Trailer", "x"), ("x-a", "2"), ("x-b", "3")] {
            fields.append(name: name, value: value)
        }
        let kept = TrailerFields.kept(fields)
        #expect(kept.map { Array($0).map { "\($0.name)=\($0.value)" } } == ["x-b=1", "x-a=2", "x-b=3"])
        #expect(TrailerFields.kept(HTTPHeaders()) == nil)
        #expect(TrailerFields.kept(["content-length": "1", "Connection": "close"]) == nil)
        #expect(TrailerFields.isAllowed("Server-Timing") && TrailerFields.isAllowed("grpc-status"))
        #expect(!TrailerFields.isAllowed("Keep-Alive") && !TrailerFields.isAllowed("www-authenticate"))
    }
}
