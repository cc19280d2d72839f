package dev.tandem.ratelimit;

import com.google.common.net.InetAddresses;

import java.net.InetAddress;
import java.util.Optional;

/**
 * One entry of {@code tandem.rate-limit.exempt-addresses}: an exact IP ({@code 127.0.0.1},
 * {@code ::1}) or a CIDR range ({@code 10.0.0.0/8}, {@code fd00::/8}). Only IP literals are read
 * (Guava's InetAddresses never asks DNS), so neither a setting nor a peer can cause a lookup. An
 * IPv4 range matches IPv4 peers only, an IPv6 range IPv6 peers only (an IPv4-mapped IPv6 peer,
 * {@code ::ffff:10.1.2.3}, is read as the IPv4 address it is).
 */
record AddressRange(byte[] network, int prefixBits) {

    static AddressRange parse(String text) {
        String value = text.trim();
        int slash = value.indexOf('/');
        String address = slash < 0 ? value : value.substring(0, slash);
        byte[] network;
        try {
            network = InetAddresses.forString(address).getAddress();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("tandem.rate-limit.exempt-addresses: '" + text
                    + "' is not an IP address or CIDR range (a.b.c.d, a.b.c.d/n, an IPv6 address, x:y::/n)", e);
        }
        int bits = network.length * 8;
        int prefix = bits;
        if (slash >= 0) {
            try {
                prefix = Integer.parseInt(value.substring(slash + 1));
            } catch (NumberFormatException e) {
                prefix = -1;
            }
            if (prefix < 0 || prefix > bits) {
                throw new IllegalArgumentException("tandem.rate-limit.exempt-addresses: '" + text
                        + "' has a prefix length outside 0-" + bits);
            }
        }
        return new AddressRange(network, prefix);
    }

    /** The peer as an address, when it is an IP literal (a Unix socket or in-process peer is not). */
    static Optional<InetAddress> address(String peer) {
        try {
            return Optional.of(InetAddresses.forString(peer));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    boolean contains(InetAddress address) {
        byte[] candidate = address.getAddress();
        if (candidate.length != network.length) {
            return false;
        }
        int whole = prefixBits / 8;
        for (int i = 0; i < whole; i++) {
            if (candidate[i] != network[i]) {
                return false;
            }
        }
        int rest = prefixBits % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xFF << (8 - rest)) & 0xFF;
        return (candidate[whole] & mask) == (network[whole] & mask);
    }
}
