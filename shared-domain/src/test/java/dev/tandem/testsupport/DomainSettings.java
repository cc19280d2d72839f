package dev.tandem.testsupport;

import org.springframework.beans.factory.config.YamlPropertiesFactoryBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.PropertiesPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ClassPathResource;

import java.util.Map;

/**
 * A settings record bound as a service binds it: tandem-domain.yml's values, with environment
 * variables on top (Spring's relaxed binding: TANDEM_CACHE_L1_TTL_JITTER for tandem.cache.l1.ttl-jitter).
 * For the tests that pin each setting's default and its variable.
 */
public final class DomainSettings {

    private DomainSettings() {
    }

    public static <T> T bind(String prefix, Class<T> type, Map<String, Object> environmentVariables) {
        YamlPropertiesFactoryBean yaml = new YamlPropertiesFactoryBean();
        yaml.setResources(new ClassPathResource("tandem-domain.yml"));
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new PropertiesPropertySource("tandem-domain.yml", yaml.getObject()));
        environment.getPropertySources().addFirst(new SystemEnvironmentPropertySource("env", environmentVariables));
        return Binder.get(environment).bind(prefix, type).get();
    }

    public static <T> T bind(String prefix, Class<T> type) {
        return bind(prefix, type, Map.of());
    }
}
