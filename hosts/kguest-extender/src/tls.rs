//! mTLS: the server's certificate, and client certificates required to
//! chain to the configured CA (so only the scheduler gets in).

use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::{RootCertStore, ServerConfig};

/// Files of the server's TLS setup.
#[derive(Debug, Clone)]
pub struct TlsFiles {
    pub cert: String,
    pub key: String,
    pub client_ca: String,
}

/// A rustls server configuration (on the `ring` provider) that requires a
/// client certificate signed by `client_ca`.
pub fn server_config(files: &TlsFiles) -> Result<Arc<ServerConfig>, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&files.cert)
        .and_then(|i| i.collect())
        .map_err(|e| format!("{}: {e}", files.cert))?;
    if certs.is_empty() {
        return Err(format!("{}: no certificate", files.cert));
    }
    let key =
        PrivateKeyDer::from_pem_file(&files.key).map_err(|e| format!("{}: {e}", files.key))?;
    let mut roots = RootCertStore::empty();
    let cas: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&files.client_ca)
        .and_then(|i| i.collect())
        .map_err(|e| format!("{}: {e}", files.client_ca))?;
    if cas.is_empty() {
        return Err(format!("{}: no CA certificate", files.client_ca));
    }
    for ca in cas {
        roots
            .add(ca)
            .map_err(|e| format!("{}: {e}", files.client_ca))?;
    }
    let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .build()
        .map_err(|e| format!("{}: {e}", files.client_ca))?;
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_client_cert_verifier(verifier)
        .with_single_cert(certs, key)
        .map_err(|e| format!("{} / {}: {e}", files.cert, files.key))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}
