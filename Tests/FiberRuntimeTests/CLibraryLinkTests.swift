import CLibUV
import CLLHTTP
import COpenSSL
import CZlib
import Testing

/// The set-up step installed every C library the runtime is built on, and they link.
@Suite("C libraries")
struct CLibraryLinkTests {
    @Test func libuvIsAtLeast1_44() {
        #expect(uv_version() >= 0x01_2C_00)
    }

    @Test func llhttpParsesAResponse() {
        var settings = fiber_llhttp_settings_t()
        llhttp_settings_init(&settings)
        var parser = fiber_llhttp_t()
        llhttp_init(&parser, HTTP_RESPONSE, &settings)
        let bytes = Array("HTTP/1.1 204 No Content\r\n\r\n".utf8)
        let status = bytes.withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { llhttp_execute(&parser, $0.baseAddress, $0.count) }
        }
        #expect(status == HPE_OK)
        #expect(parser.status_code == 204)
    }

    @Test func openSSLIsVersion3() {
        #expect(OpenSSL_version_num() >= 0x3000_0000)
    }

    @Test func zlibIsPresent() {
        #expect(String(cString: zlibVersion()).hasPrefix("1."))
    }
}
